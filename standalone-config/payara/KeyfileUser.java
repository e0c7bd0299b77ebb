import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Adds or replaces a user in a Payara file-realm key file, like WildFly's add-user.sh does for the
 * application realm. Payara's own create-file-user refuses group names with a colon, and Trigger
 * Outbox scopes producers with groups named app:UUID; the file realm reads such names from the key
 * file without complaint. Line format: {@code name;{SSHA256}base64(hash + salt);group,group}, the
 * hash being SHA-256 of (password + 8 random salt bytes), digested 100 times in all.
 *
 * <pre>java KeyfileUser.java KEYFILE USER GROUP[,GROUP...]   (password on standard input)</pre>
 */
public class KeyfileUser {

    public static void main(String[] args) throws IOException, NoSuchAlgorithmException {
        if (args.length != 3) {
            System.err.println("usage: java KeyfileUser.java KEYFILE USER GROUP[,GROUP...]  (password on standard input)");
            System.exit(2);
        }
        Path keyfile = Path.of(args[0]);
        String user = args[1];
        String groups = args[2];
        // exactly what was given, without the line end of a piped line
        String password = new String(System.in.readAllBytes(), StandardCharsets.UTF_8).replaceFirst("\\r?\\n$", "");
        if (!user.matches("[A-Za-z0-9_.@-]+") || groups.contains(";") || groups.isBlank() || password.isEmpty()) {
            System.err.println("user: letters, digits and _ . @ - ; groups: comma-separated, no ';'; password: not empty");
            System.exit(2);
        }
        List<String> lines = new ArrayList<>();
        if (Files.exists(keyfile)) {
            for (String line : Files.readAllLines(keyfile, StandardCharsets.UTF_8)) {
                if (!line.startsWith(user + ";")) {
                    lines.add(line);
                }
            }
        }
        lines.add(user + ";" + ssha256(password) + ";" + groups);
        Path dir = keyfile.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, ".keyfile", ".tmp");
        Files.write(tmp, lines, StandardCharsets.UTF_8);
        Files.move(tmp, keyfile, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    static String ssha256(String password) throws NoSuchAlgorithmException {
        byte[] salt = new byte[8];
        new SecureRandom().nextBytes(salt);
        byte[] pwd = password.getBytes(StandardCharsets.UTF_8);
        byte[] salted = new byte[pwd.length + salt.length];
        System.arraycopy(pwd, 0, salted, 0, pwd.length);
        System.arraycopy(salt, 0, salted, pwd.length, salt.length);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] hash = sha.digest(salted);
        for (int i = 2; i <= 100; i++) {
            hash = sha.digest(hash);
        }
        byte[] out = new byte[hash.length + salt.length];
        System.arraycopy(hash, 0, out, 0, hash.length);
        System.arraycopy(salt, 0, out, hash.length, salt.length);
        return "{SSHA256}" + Base64.getEncoder().encodeToString(out);
    }
}
