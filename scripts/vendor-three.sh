#!/usr/bin/env bash
# Vendors three.js (https://threejs.org, MIT) into the web viewer: the two ES module files of its
# npm package's build and its licence, to native/cli/src/serve/assets/vendor/three/, where
# `tickreel serve` embeds them in the binary (nothing is fetched at run time). Run it to check the
# checked-in files against the registry (`--check`) or to upgrade (set VERSION, then update the
# sums below from its output).
set -euo pipefail
VERSION=0.187.0
# sha512 integrity of the npm tarball, as the registry publishes it (`npm view three@VERSION dist.integrity`)
INTEGRITY='sha512-Qiu7R+Cmh8CstZsY1uJOSWnVlfo7ZtNLV7mF8Jltk3LB3AtDu9cRZlcnRKkAk8Y4z6KKw35z7Y7Urd7jWY8etA=='
SUMS='104f56145899722094556490d787aae0617cc2fc3382f31df02d724ea1aee341  three.module.js
613e370f76638fdef83926642bf256dc9615684922de1ce1f63a8583e5d78578  three.core.js
8b378ebe60e2fe500158cb0ac71cb5e8b7d92953c2abcc63a0eb90499653b5bc  LICENSE'
here=$(cd "$(dirname "$0")/.." && pwd)
dest="$here/native/cli/src/serve/assets/vendor/three"
if [ "${1:-}" = "--check" ]; then
  (cd "$dest" && echo "$SUMS" | sha256sum -c --quiet) && echo "three.js $VERSION: the vendored files are the published ones"
  exit
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "three@$VERSION" >/dev/null)
got="sha512-$(openssl dgst -sha512 -binary "$work/three-$VERSION.tgz" | base64 -w0)"
[ "$got" = "$INTEGRITY" ] || { echo "three-$VERSION.tgz: integrity $got, expected $INTEGRITY" >&2; exit 1; }
tar xzf "$work/three-$VERSION.tgz" -C "$work"
mkdir -p "$dest"
cp "$work/package/build/three.module.js" "$work/package/build/three.core.js" "$work/package/LICENSE" "$dest/"
(cd "$dest" && sha256sum three.module.js three.core.js LICENSE)
