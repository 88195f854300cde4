package io.tickreel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Paths handed over by test.sh and helpers shared by the tests. */
final class TestSupport {
    private TestSupport() {}

    /** A path given as a system property by test.sh. */
    static Path property(String name) {
        String v = System.getProperty(name);
        if (v == null) {
            throw new IllegalStateException("run through java-bindings/test.sh (missing -D" + name + ")");
        }
        return Path.of(v);
    }

    /** The built jar with the native library inside. */
    static Path jar() {
        return property("tickreel.test.jar");
    }

    /** The bindings' main sources. */
    static Path mainSources() {
        return property("tickreel.test.sources");
    }

    /** The plugin probe's sources. */
    static Path probeSources() {
        return property("tickreel.test.probe");
    }

    /** Compiles every .java file under the given roots into {@code out}. */
    static void compile(List<Path> sourceRoots, String classPath, Path out) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of("--release", "17", "-nowarn", "-d", out.toString()));
        if (classPath != null) {
            args.add("-cp");
            args.add(classPath);
        }
        for (Path root : sourceRoots) {
            try (Stream<Path> s = Files.walk(root)) {
                s.filter(p -> p.toString().endsWith(".java")).forEach(p -> args.add(p.toString()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        int rc = javac.run(null, null, null, args.toArray(new String[0]));
        if (rc != 0) {
            throw new IllegalStateException("javac failed with " + rc + " for " + sourceRoots);
        }
    }

    /** Copies a source tree, replacing {@code io.tickreel} by {@code pkg} in paths and text. */
    static void relocate(Path from, Path to, String pkg) {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (!Files.isRegularFile(p)) {
                    continue;
                }
                String rel = from.relativize(p).toString().replace("io/tickreel", pkg.replace('.', '/'));
                Path dest = to.resolve(rel);
                Files.createDirectories(dest.getParent());
                Files.writeString(dest, Files.readString(p).replace("io.tickreel", pkg));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
