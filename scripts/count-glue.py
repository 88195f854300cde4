#!/usr/bin/env python3
# The bridge's size at a commit (docs/internals.md, "The bindings: one declaration per
# operation"): code lines skip blank lines, comment lines (//, /*, *, */), `#[cfg(test)] mod
# tests { ... }` blocks (brace-matched) and the generator's own test file (codegen/tests.rs).
# Reads the commit with git (not the work tree). Usage: scripts/count-glue.py [COMMIT] (default HEAD)
import subprocess, sys, re
repo = '.'
commit = sys.argv[1] if len(sys.argv) > 1 else 'HEAD'
def files(prefix):
    out = subprocess.run(['git','-C',repo,'ls-tree','-r','--name-only',commit,prefix],capture_output=True,text=True).stdout.split()
    return out
def show(p):
    return subprocess.run(['git','-C',repo,'show',f'{commit}:{p}'],capture_output=True,text=True).stdout
def code_lines(text):
    n=0; lines=text.split('\n'); i=0; skip_depth=None; pending_cfg=False
    while i < len(lines):
        l=lines[i].strip(); i+=1
        if skip_depth is not None:
            skip_depth += l.count('{') - l.count('}')
            if skip_depth <= 0: skip_depth=None
            continue
        if l == '#[cfg(test)]':
            pending_cfg=True; continue
        if pending_cfg:
            pending_cfg=False
            if l.startswith('mod tests'):
                skip_depth = l.count('{') - l.count('}')
                if skip_depth <= 0 and '{' not in l: skip_depth=None
                continue
            n+=1  # the cfg line itself counts with its item
        if not l or l.startswith('//') or l.startswith('/*') or l.startswith('*') or l.startswith('*/'):
            continue
        n+=1
    return n
def total(prefix, ext):
    return sum(code_lines(show(p)) for p in files(prefix) if p.endswith(ext) and not p.endswith('codegen/tests.rs'))
ffi=total('native/bridge/ffi/','.rs'); jni=total('native/bridge/jni/','.rs')
api=total('native/bridge/api/','.rs'); gen=total('native/bridge/codegen/','.rs')+total('native/bridge/macros/','.rs')
nb=code_lines(show('java-bindings/tickreel/src/main/java/io/tickreel/NativeBridge.java'))
whole=total('native/bridge/','.rs')+nb
h=show('include/tickreel.h')
cfun=len(set(re.findall(r'^\S.*?\b(tickreel_[a-z_0-9]+)\(', h, re.M)))
jn=show('java-bindings/tickreel/src/main/java/io/tickreel/NativeBridge.java').count('static native')
ext_c=sum(len(re.findall(r'extern "C" fn', show(p))) for p in files('native/bridge/') if p.endswith('.rs'))
ext_j=sum(len(re.findall(r'extern "system" fn', show(p))) for p in files('native/bridge/') if p.endswith('.rs'))
print(f"{commit[:7]}: C functions {cfun} / Java native {jn}; hand-written extern C {ext_c} / JNI {ext_j}; ffi {ffi}; jni {jni}; NativeBridge.java {nb}; api {api}; codegen+macros {gen}; whole {whole}; per-language glue (ffi+jni) {ffi+jni}")
