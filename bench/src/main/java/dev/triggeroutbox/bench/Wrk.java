package dev.triggeroutbox.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP floor: wrk (Debian's, a C load generator) POSTing one of the signed webhook requests, the
 * same bytes the clients send, over a fixed number of keep-alive connections, with a Lua script the
 * harness writes. One wrk thread, so the other core is left to the receiver.
 */
final class Wrk {

    static final Path BINARY = Path.of("/usr/bin/wrk");

    private Wrk() {
    }

    static boolean installed() {
        return Files.isExecutable(BINARY);
    }

    /** Requests/s wrk reached against {@code url} with {@code connections} connections for {@code seconds}. */
    static Results.Throughput run(Path target, String url, SignedPosts.Post post, int connections, int seconds)
            throws IOException, InterruptedException {
        Path script = Files.createDirectories(target.resolve("wrk")).resolve("post.lua");
        StringBuilder lua = new StringBuilder("wrk.method = \"POST\"\n");
        lua.append("wrk.body = \"").append(luaString(new String(post.body(), StandardCharsets.UTF_8))).append("\"\n");
        post.headers().forEach((k, v) -> lua.append("wrk.headers[\"").append(k).append("\"] = \"").append(luaString(v))
                .append("\"\n"));
        Files.writeString(script, lua);
        Process p = new ProcessBuilder(BINARY.toString(), "-t1", "-c" + connections, "-d" + seconds + "s",
                "--timeout", "10s", "-s", script.toString(), url).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(seconds + 30L, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("wrk failed: " + out);
        }
        Matcher total = Pattern.compile("(\\d+) requests in ([0-9.]+)(us|ms|s|m|h),").matcher(out);
        if (!total.find()) {
            throw new IllegalStateException("unexpected wrk output: " + out);
        }
        if (out.contains("Non-2xx") || out.contains("Socket errors")) {
            throw new IllegalStateException("wrk saw errors: " + out);
        }
        double secs = Double.parseDouble(total.group(2)) * switch (total.group(3)) {
            case "us" -> 1e-6;
            case "ms" -> 1e-3;
            case "m" -> 60;
            case "h" -> 3600;
            default -> 1;
        };
        return new Results.Throughput("wrk, " + connections + " connections", Long.parseLong(total.group(1)), secs);
    }

    private static String luaString(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
