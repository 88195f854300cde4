#!/usr/bin/env python3
"""Checks the documentation's code samples and links (run by tests/docs.sh, which builds what it
needs and passes it in the environment).

Which files: README.md and docs/*.md (samples and links); BENCHMARKS.md, FORMAT.md,
java-bindings/README.md and fuzz/README.md (links, paths and commands only).

Samples, by the fence's info string:
  ```c      a whole C program: compiled with gcc -std=c11 -Wall -Wextra -Werror under ASan/UBSan
            against include/tickreel.h, linked with libtickreel.so and run in a scratch directory
  ```java   a whole Java program (one public class with a main): compiled with javac against the
            test jar the Maven build assembles (java-bindings/native.sh test-plugin), and run
  ```rust   a whole Rust program: compiled with rustc -D warnings against the workspace's own
            libraries (tickreel, tickreel_object, tickreel_catalog, fastnbt, uuid), and run
  ```sh     every `tickreel ...` command (also `cargo run --release -- ...`,
            `target/*/tickreel ...`): each subcommand and each flag must be in
            `tickreel <subcommand> --help`; a script it runs (`./x.sh`, `a/b.sh`) must exist
  ```c fragment, ```java fragment, ```rust fragment: not compiled (kept to a few; listed).
Other languages (toml, text, json...) are not checked.

Links: every relative link `[..](path#anchor)` must name an existing file, and an anchor a
heading (GitHub's slug) or an `<a id>` of that file. Paths: every inline code span that names a
file of the repository (`native/...`, `examples/...`, ...) must exist.

Exit status 1 if anything fails; every failure is reported, not only the first.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE_FILES = ["README.md"] + sorted(
    os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
LINK_ONLY_FILES = ["BENCHMARKS.md", "FORMAT.md", "java-bindings/README.md", "fuzz/README.md"]
CHECKED_LANGS = {"c", "java", "rust", "sh"}
# Top-level directories whose paths, named in inline code, must exist.
PATH_ROOTS = ("native/", "examples/", "java-bindings/", "scripts/", "tests/", "fuzz/", "include/",
              "docs/")
TIMEOUT = 300

failures = []
notes = []


def fail(where, msg, output=""):
    failures.append(where)
    print(f"FAIL {where}: {msg}")
    if output:
        print("\n".join("    " + line for line in output.rstrip().splitlines()[-40:]))


def blocks(path):
    """(line, info, text) of every fenced block of a Markdown file."""
    out = []
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+)(.*)$", lines[i])
        if m:
            indent, fence, info = m.group(1), m.group(2), m.group(3).strip()
            start = i + 1
            body = []
            i += 1
            while i < len(lines) and not re.match(r"^\s*" + fence + r"\s*$", lines[i]):
                line = lines[i]
                body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
                i += 1
            out.append((start, info, "\n".join(body) + "\n"))
        i += 1
    return out


def prose(path):
    """The file's text without fenced blocks (their lines blanked, so line numbers stay)."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, fence = [], None
    for line in lines:
        m = re.match(r"^\s*(```+)", line)
        if fence is None and m:
            fence = m.group(1)
            out.append("")
        elif fence is not None:
            if re.match(r"^\s*" + fence + r"\s*$", line):
                fence = None
            out.append("")
        else:
            out.append(line)
    return out


def run(cmd, cwd, env=None, timeout=TIMEOUT):
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return 124, out + f"\n(timed out after {timeout} s)"


# ---- C ----------------------------------------------------------------------------------------

def check_c(where, text, scratch, env):
    src = os.path.join(scratch, "sample.c")
    with open(src, "w") as f:
        f.write(text)
    exe = os.path.join(scratch, "sample")
    libdir = env["TICKREEL_LIBDIR"]
    cflags = ["-std=c11", "-g", "-O1", "-Wall", "-Wextra", "-Werror", "-fsanitize=address,undefined",
              "-fno-omit-frame-pointer", "-fno-sanitize-recover=all",
              "-I" + os.path.join(ROOT, "include")]
    rc, out = run(["gcc"] + cflags + ["-o", exe, src, "-L" + libdir, "-ltickreel", "-lm"], scratch)
    if rc != 0:
        return fail(where, "does not compile", out)
    rc, out = run([exe], scratch, env)
    if rc != 0:
        return fail(where, f"exits with {rc}", out)
    if re.search(r"Sanitizer|runtime error:", out):
        return fail(where, "prints a sanitizer report", out)
    return True


# ---- Java -------------------------------------------------------------------------------------

def check_java(where, text, scratch, env):
    m = re.search(r"public\s+(?:final\s+)?class\s+(\w+)", text)
    if not m:
        return fail(where, "no public class: a Java sample is a whole program")
    name = m.group(1)
    src = os.path.join(scratch, name + ".java")
    with open(src, "w") as f:
        f.write(text)
    classes = os.path.join(scratch, "classes")
    os.makedirs(classes, exist_ok=True)
    jar = env["TICKREEL_JAR"]
    rc, out = run(["javac", "--release", "17", "-Xlint:all", "-Werror", "-encoding", "UTF-8",
                   "-cp", jar, "-d", classes, src], scratch)
    if rc != 0:
        return fail(where, "does not compile", out)
    rc, out = run(["java", "-Djava.library.path=" + env["TICKREEL_LIBDIR"],
                   "-Dtickreel.library.path=" + os.path.join(env["TICKREEL_LIBDIR"], "libtickreel.so"),
                   "-cp", jar + os.pathsep + classes, name], scratch, env)
    if rc != 0:
        return fail(where, f"exits with {rc}", out)
    return True


# ---- Rust -------------------------------------------------------------------------------------

def check_rust(where, text, scratch, env):
    src = os.path.join(scratch, "main.rs")
    with open(src, "w") as f:
        f.write(text)
    exe = os.path.join(scratch, "sample")
    externs = []
    for crate, rlib in RUST_LIBS.items():
        externs += ["--extern", f"{crate}={rlib}"]
    cmd = ["rustc", "--edition", "2024", "--crate-type", "bin", "-D", "warnings", "-C", "debuginfo=0",
           "-L", "dependency=" + RUST_DEPS, *externs, "-o", exe, src]
    rc, out = run(cmd, scratch)
    if rc != 0:
        return fail(where, "does not compile", out)
    rc, out = run([exe], scratch, env)
    if rc != 0:
        return fail(where, f"exits with {rc}", out)
    return True


RUST_LIBS = {}
RUST_DEPS = ""


def load_rust_libs(env):
    """The rlibs of the crates a Rust sample may use, from `cargo build --message-format=json`."""
    global RUST_DEPS
    import json
    wanted = {"tickreel": "tickreel", "tickreel-object": "tickreel_object",
              "tickreel-catalog": "tickreel_catalog", "fastnbt": "fastnbt", "uuid": "uuid"}
    # The shared library's build (as tests/c.sh and the test build ask for it) lists them
    # all among its dependencies; asking for these crates alone would resolve other features of
    # their dependencies and compile them again.
    p = subprocess.run(["cargo", "build", "-q", "-p", "tickreel-bridge", "--lib",
                        "--message-format=json"],
                       cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail("cargo build", "the Rust libraries do not build")
        return False
    for line in p.stdout.splitlines():
        if not line.startswith("{"):
            continue
        msg = json.loads(line)
        if msg.get("reason") != "compiler-artifact":
            continue
        name = msg["target"]["name"].replace("_", "-")
        pkg = re.sub(r"@.*", "", msg["package_id"].rsplit("/", 1)[-1]).split("#")[0]
        for key in (name, pkg):
            if key in wanted and "lib" in msg["target"]["kind"]:
                # The hashed file in deps/ (a workspace crate's copy one level up is replaced by
                # any build of it with other features).
                for fname in msg["filenames"]:
                    if fname.endswith(".rmeta") and os.path.exists(fname[:-len(".rmeta")] + ".rlib"):
                        RUST_LIBS[wanted[key]] = fname[:-len(".rmeta")] + ".rlib"
                        RUST_DEPS = os.path.dirname(fname)
                    elif fname.endswith(".rlib") and os.path.basename(os.path.dirname(fname)) == "deps":
                        RUST_LIBS[wanted[key]] = fname
                        RUST_DEPS = os.path.dirname(fname)
    missing = set(wanted.values()) - set(RUST_LIBS)
    if missing:
        fail("cargo build", f"no rlib found for {sorted(missing)}")
        return False
    return True


# ---- sh: tickreel commands ----------------------------------------------------------------------

HELP = {}


def help_of(path):
    key = tuple(path)
    if key not in HELP:
        rc, out = run([TICKREEL, *path, "--help"], ROOT, timeout=30)
        HELP[key] = out if rc == 0 else None
    return HELP[key]


def subcommands(help_text):
    """The names listed under `Commands:` in a clap help text."""
    names, inside = set(), False
    for line in help_text.splitlines():
        if line.strip() == "Commands:":
            inside = True
            continue
        if inside:
            m = re.match(r"^  (\S+)", line)
            if m:
                names.add(m.group(1))
            elif line.strip() == "" or not line.startswith(" "):
                inside = False
    return names


def check_tickreel_command(where, words):
    path = []
    help_text = help_of(path)
    if help_text is None:
        return fail(where, "`tickreel --help` fails")
    rest = list(words)
    while rest and rest[0] in subcommands(help_text):
        path.append(rest.pop(0))
        help_text = help_of(path)
        if help_text is None:
            return fail(where, f"`tickreel {' '.join(path)} --help` fails")
    if not path and rest and not rest[0].startswith("-"):
        return fail(where, f"`{rest[0]}` is not a tickreel command")
    ok = True
    for w in rest:
        if not w.startswith("-") or w in ("-", "--"):
            continue
        flag = w.split("=", 1)[0]
        if not re.search(r"(^|[\s,\[])" + re.escape(flag) + r"([\s,=<\[\]]|$)", help_text, re.M):
            fail(where, f"`tickreel {' '.join(path)}` has no option {flag}")
            ok = False
    return ok


def shell_words(line):
    import shlex
    try:
        return shlex.split(line, comments=True)
    except ValueError:
        return line.split()


def check_sh(where, text):
    ok = True
    joined = re.sub(r"\\\n", " ", text)
    lines, heredoc = [], None
    for line in joined.splitlines():
        if heredoc is not None:  # a here-document's body is data, not commands
            if line.strip() == heredoc:
                heredoc = None
            continue
        m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
        if m:
            heredoc = m.group(1)
        lines.append(line)
    for line in lines:
        for part in re.split(r"&&|\|\||;|\||\$\(|\)", line):
            words = shell_words(part)
            while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
                words.pop(0)  # VAR=value before the command
            if not words:
                continue
            while words and words[0] in ("time", "/usr/bin/time", "nice", "exec") :
                words.pop(0)  # a wrapper: the command is the first word that is not an option
                while words and words[0].startswith("-"):
                    words.pop(0)
                    if words and not words[0].startswith("-") and not re.search(r"tickreel$", words[0]):
                        words.pop(0)  # the option's value ("-f FORMAT", "-n 10")
            if not words:
                continue
            cmd = words[0]
            if cmd in ("tickreel",) or re.match(r"^(\./)?target/[^/]+/tickreel$", cmd):
                ok = check_tickreel_command(where, words[1:]) and ok
            elif cmd == "cargo" and words[1:4] == ["run", "--release", "--"]:
                ok = check_tickreel_command(where, words[4:]) and ok
            elif re.match(r"^(\./)?[\w./-]+\.(sh|py)$", cmd):
                if not os.path.exists(os.path.join(ROOT, cmd)):
                    fail(where, f"no script {cmd}")
                    ok = False
    return ok


# ---- links and paths --------------------------------------------------------------------------

def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"<[^>]+>", "", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


ANCHORS = {}


def anchors(path):
    if path not in ANCHORS:
        seen, found = {}, set()
        for line in prose(path):
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                base = slug(m.group(1))
                n = seen.get(base, 0)
                found.add(base if n == 0 else f"{base}-{n}")
                seen[base] = n + 1
            for a in re.findall(r'<a (?:id|name)="([^"]+)"', line):
                found.add(a)
        ANCHORS[path] = found
    return ANCHORS[path]


def check_links(path):
    ok = True
    base = os.path.dirname(path)
    for n, line in enumerate(prose(path), 1):
        text = re.sub(r"`[^`]*`", "", line)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(base, file_part)) if file_part else path
            where = f"{path}:{n}"
            if not os.path.exists(os.path.join(ROOT, dest)):
                fail(where, f"link to a missing file: {target}")
                ok = False
                continue
            if anchor:
                if not dest.endswith(".md"):
                    continue
                if anchor not in anchors(dest):
                    fail(where, f"link to a missing anchor: {target}")
                    ok = False
        for span in re.findall(r"`([^`]+)`", line):
            m = re.match(r"^(" + "|".join(re.escape(r) for r in PATH_ROOTS) + r")([\w./-]*)$",
                         span)
            if not m or "*" in span or "<" in span or "..." in span:
                continue
            if {"build", "target"} & set(span.split("/")):
                continue  # build outputs
            candidate = span.rstrip(".,:")
            if not os.path.exists(os.path.join(ROOT, candidate)):
                fail(f"{path}:{n}", f"names a path that does not exist: {candidate}")
                ok = False
    return ok


# ---- main -------------------------------------------------------------------------------------

def main():
    global TICKREEL
    if "--links-only" in sys.argv[1:]:  # a quick check while writing: links and paths only
        for path in SAMPLE_FILES + LINK_ONLY_FILES:
            check_links(path)
        print(f"docs: links and paths, {len(failures)} failures")
        return 1 if failures else 0
    TICKREEL = os.environ["TICKREEL_BIN"]
    env = dict(os.environ)
    want_rust = any(info.split()[:1] == ["rust"] and "fragment" not in info.split()
                    for f in SAMPLE_FILES for _, info, _ in blocks(f))
    if want_rust and not load_rust_libs(env):
        return 1
    counts = {}
    fragments = []
    started = time.monotonic()
    for path in SAMPLE_FILES + LINK_ONLY_FILES:
        check_links(path)
        for line, info, text in blocks(path):
            words = info.split()
            lang = words[0] if words else ""
            if lang not in CHECKED_LANGS:
                continue
            where = f"{path}:{line} ({lang})"
            if "fragment" in words[1:]:
                fragments.append(where)
                continue
            if lang == "sh":
                check_sh(where, text)
                counts["sh"] = counts.get("sh", 0) + 1
                continue
            if path in LINK_ONLY_FILES:
                continue  # their programs are not samples of the guides
            t0 = time.monotonic()
            scratch = tempfile.mkdtemp(prefix="sample-", dir=env["TICKREEL_SCRATCH"])
            ok = {"c": check_c, "java": check_java, "rust": check_rust}[lang](where, text, scratch, env)
            if ok:
                print(f"ok   {where} ({time.monotonic() - t0:.1f} s)")
            counts[lang] = counts.get(lang, 0) + 1
            shutil.rmtree(scratch, ignore_errors=True)
    summary = ", ".join(f"{n} {lang}" for lang, n in sorted(counts.items()))
    print(f"docs: {summary} blocks checked, {len(fragments)} fragments not compiled"
          f"{': ' + ', '.join(fragments) if fragments else ''}; "
          f"{len(failures)} failures ({time.monotonic() - started:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
