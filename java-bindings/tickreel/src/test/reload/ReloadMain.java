import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * A plugin reload as a server does it, in a plain JVM whose {@code main} returns: the jar is loaded
 * in its own class loader, the probe plugin ({@code probe.PluginProbe}: engine, recorder, shadow
 * play, reader, playhead, ghost, catalog, object storage) runs on the main thread and on two worker
 * threads, the loader is closed and collected until the library is unmapped, and only then do the
 * workers end; three rounds (or ROUNDS), then {@code main} returns and the JVM ends its main thread.
 *
 * <p>A thread-exit callback the library registered on any of those threads (a pthread-key
 * destructor: std::thread::current() reached through crossbeam or fastrand) runs after the
 * library is gone and kills the JVM with SIGSEGV (exit 134 and an {@code hs_err} file), as it did
 * after a reload; {@code java-bindings/test.sh} checks the exit status and that no such file was
 * written. A thread-local destructor ({@code __cxa_thread_atexit}) keeps the library mapped:
 * "still mapped" here.
 *
 * <p>Usage: {@code java -cp CLASSES ReloadMain TICKREEL_JAR PROBE_CLASSES WORK_DIR [ROUNDS]}; the S3 test
 * server's {@code tickreel.test.s3.*} properties, when given, add object storage to the probe.
 */
public final class ReloadMain {
    private static final int DEFAULT_ROUNDS = 3;
    private static final int WORKERS = 2;

    public static void main(String[] args) throws Exception {
        if (args.length != 3 && args.length != 4) {
            System.err.println("usage: ReloadMain TICKREEL_JAR PROBE_CLASSES WORK_DIR [ROUNDS]");
            System.exit(2);
        }
        int rounds = args.length == 4 ? Integer.parseInt(args[3]) : DEFAULT_ROUNDS;
        Path jar = Path.of(args[0]);
        Path probe = Path.of(args[1]);
        Path work = Path.of(args[2]);
        int baseline = mappedCopies();
        for (int round = 0; round < rounds; round++) {
            CountDownLatch release = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            WeakReference<ClassLoader> loader = useAndClose(jar, probe, work.resolve("round" + round), release, workers);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int mapped = mappedCopies();
            while ((loader.get() != null || mapped > baseline) && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(50);
                mapped = mappedCopies();
            }
            if (loader.get() != null) {
                throw new AssertionError("round " + round + ": the plugin's class loader was never collected");
            }
            if (mapped > baseline) {
                throw new AssertionError("round " + round + ": the library is still mapped after its loader was "
                        + "collected (" + mapped + " copies, " + baseline + " before): a thread-local destructor on a "
                        + "caller's thread");
            }
            // The library is gone: now the workers end, and with them their thread-exit callbacks.
            release.countDown();
            for (Thread t : workers) {
                t.join();
            }
            System.out.println("reload round " + round + ": used on main and " + WORKERS
                    + " workers, unloaded, workers ended");
        }
        System.out.println("reload: " + rounds + " rounds passed; main returns");
        // main returns: the JVM ends this thread as any other (DestroyJavaVM).
    }

    /**
     * Loads the plugin, runs it here and on {@link #WORKERS} threads (which then wait for
     * {@code release}), closes its loader, and returns only a weak reference to it.
     */
    private static WeakReference<ClassLoader> useAndClose(Path jar, Path probe, Path dir, CountDownLatch release,
            List<Thread> workers) throws Exception {
        URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL(), probe.toUri().toURL()},
                ClassLoader.getPlatformClassLoader());
        CountDownLatch used = new CountDownLatch(WORKERS);
        List<AtomicReference<String>> results = new ArrayList<>();
        for (int i = 0; i < WORKERS; i++) {
            AtomicReference<String> result = new AtomicReference<>();
            results.add(result);
            Path workerDir = dir.resolve("worker" + i);
            AtomicReference<ClassLoader> handoff = new AtomicReference<>(loader);
            Thread t = new Thread(() -> {
                result.set(runProbe(handoff.getAndSet(null), workerDir));
                used.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "plugin-worker-" + i);
            t.setContextClassLoader(null);
            t.start();
            workers.add(t);
        }
        String onMain = runProbe(loader, dir.resolve("main"));
        if (!used.await(300, TimeUnit.SECONDS)) {
            throw new AssertionError("the workers did not finish");
        }
        check("main", onMain);
        for (int i = 0; i < WORKERS; i++) {
            check("worker " + i, results.get(i).get());
        }
        loader.close();
        return new WeakReference<>(loader);
    }

    @SuppressWarnings("unchecked")
    private static String runProbe(ClassLoader loader, Path dir) {
        try {
            Files.createDirectories(dir);
            Class<?> c = Class.forName("probe.PluginProbe", true, loader);
            Function<String, String> probe = (Function<String, String>) c.getConstructor().newInstance();
            return probe.apply(dir.toString());
        } catch (Exception e) {
            return "failed " + e;
        }
    }

    private static void check(String who, String result) {
        boolean s3 = System.getProperty("tickreel.test.s3.endpoint") == null || result.contains(" s3=60/59 ");
        if (result == null || !result.startsWith("ok ") || !result.contains(" reported=") || !result.contains(" top=1/")
                || !s3) {
            throw new AssertionError(who + ": " + result);
        }
    }

    /** Copies of the library the bindings extracted that are mapped in this process. */
    private static int mappedCopies() throws java.io.IOException {
        String name = System.mapLibraryName("tickreel");
        java.util.Set<String> files = new java.util.HashSet<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            int slash = line.indexOf('/');
            if (slash < 0) {
                continue;
            }
            String path = line.substring(slash);
            String file = path.substring(path.lastIndexOf('/') + 1).replace(" (deleted)", "");
            if (file.startsWith("tickreel-") && file.endsWith("-" + name)) {
                files.add(path);
            }
        }
        return files.size();
    }
}
