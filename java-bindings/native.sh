#!/usr/bin/env bash
# The native library of a Java artifact, as the Maven build (java-bindings/*/pom.xml) calls it.
#
#   native.sh pack --features F --profile P --resource R --classes DIR --debug FILE
#       cargo build -p tickreel-bridge --no-default-features --features F --profile P; the line
#       tables split off into FILE (objcopy --only-keep-debug, linked back by .gnu_debuglink) and
#       the stripped library copied to DIR/R/<os>-<arch>/<libname>. Prints both sizes.
#   native.sh test-plugin --classes DIR --out DIR2
#       the test build's library (scripts/test-build.sh: the dev profile, every feature and the
#       test hooks, as `cargo test` built it) packed with the classes of DIR into DIR2/classes and
#       DIR2/tickreel-test.jar: what the JUnit tests load, never deployed.
#   native.sh size FILE [MAX]
#       prints FILE's size; fails when it is over MAX bytes.
#   native.sh sizes DIR
#       prints the size of every jar and debug file in DIR (the artifacts of a module).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac

case "$(uname -s)" in
  Linux) os=linux; lib=libtickreel.so ;;
  Darwin) os=macos; lib=libtickreel.dylib ;;
  MINGW*|MSYS*|CYGWIN*) os=windows; lib=tickreel.dll ;;
  *) echo "native.sh: unsupported OS $(uname -s)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64|amd64) arch=x86_64 ;;
  aarch64|arm64) arch=aarch64 ;;
  *) arch="$(uname -m)" ;;
esac
platform="$os-$arch"

mode="${1:-}"
[ $# -gt 0 ] && shift
features="" profile=release resource=META-INF/native classes="" debug="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --features) features="$2"; shift 2 ;;
    --profile) profile="$2"; shift 2 ;;
    --resource) resource="$2"; shift 2 ;;
    --classes) classes="$2"; shift 2 ;;
    --debug) debug="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) break ;;
  esac
done

case "$mode" in
  pack)
    [ -n "$classes" ] && [ -n "$debug" ] || { echo "native.sh pack: --classes and --debug are required" >&2; exit 2; }
    echo "native.sh: cargo build -p tickreel-bridge --lib --profile $profile --no-default-features --features '$features'"
    (cd "$root" && cargo build -q -p tickreel-bridge --lib --profile "$profile" --no-default-features \
      ${features:+--features "$features"})
    [ "$profile" = dev ] && dir=debug || dir="$profile"
    built="$target_dir/$dir/$lib"
    [ -f "$built" ] || { echo "native.sh: no library at $built" >&2; exit 1; }
    dest="$classes/$resource/$platform/$lib"
    mkdir -p "$(dirname "$dest")" "$(dirname "$debug")"
    if [ "$os" = linux ]; then
      # The debug info beside the jar, the library stripped of it and of its local symbols (the
      # exported tickreel_* and JNI_OnLoad stay), with a link to the debug file by name and CRC.
      objcopy --only-keep-debug "$built" "$debug"
      strip --strip-debug --strip-unneeded -o "$dest" "$built"
      (cd "$(dirname "$debug")" && objcopy --add-gnu-debuglink="$(basename "$debug")" "$dest")
    else
      cp "$built" "$dest"
      : > "$debug"
    fi
    printf 'native.sh: packed %s/%s/%s: %d bytes (built %d bytes; debug info %s: %d bytes)\n' \
      "$resource" "$platform" "$lib" "$(stat -c %s "$dest")" "$(stat -c %s "$built")" \
      "$(basename "$debug")" "$(stat -c %s "$debug")"
    ;;
  test-plugin)
    [ -n "$classes" ] && [ -n "$out" ] || { echo "native.sh test-plugin: --classes and --out are required" >&2; exit 2; }
    echo "native.sh: the test build's library (scripts/test-build.sh)"
    (cd "$root" && source scripts/test-build.sh && test_build -q --lib)
    built="$target_dir/debug/$lib"
    rm -rf "$out/classes"
    mkdir -p "$out"
    cp -r "$classes" "$out/classes"
    rm -rf "$out/classes/META-INF/native" "$out/classes/META-INF/native-network"
    mkdir -p "$out/classes/META-INF/native/$platform"
    cp "$built" "$out/classes/META-INF/native/$platform/$lib"
    rm -f "$out/tickreel-test.jar"
    jar --create --file "$out/tickreel-test.jar" -C "$out/classes" .
    echo "native.sh: $out/tickreel-test.jar (the test build's library, $(stat -c %s "$built") bytes)"
    ;;
  size)
    file="${1:?native.sh size FILE [MAX]}"
    max="${2:-0}"
    bytes=$(stat -c %s "$file")
    printf 'native.sh: %s: %d bytes (%.2f MB)\n' "$(basename "$file")" "$bytes" "$(awk -v b="$bytes" 'BEGIN { print b / 1000000 }')"
    if [ "$max" -gt 0 ] && [ "$bytes" -gt "$max" ]; then
      echo "native.sh: $(basename "$file") is over its limit of $max bytes" >&2
      exit 1
    fi
    ;;
  sizes)
    dir="${1:?native.sh sizes DIR}"
    for f in "$dir"/*.jar "$dir"/*.debug; do
      [ -f "$f" ] && printf 'native.sh: artifact %s: %d bytes\n' "$(basename "$f")" "$(stat -c %s "$f")"
    done
    ;;
  *)
    echo "usage: native.sh pack|test-plugin|size|sizes ... (see the header)" >&2
    exit 2
    ;;
esac
