// A testlib-convention checker in Java for the standard package (a + b):
// `java Check input output answer`, exit 0 accepted, 1 wrong answer, 2
// presentation error. It reads with java.io only (java.nio's Files is
// not allowed in the judges' sandbox).
import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;

public class Check {
    static String read(String path) throws IOException {
        StringBuilder b = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new FileReader(path))) {
            for (String line; (line = r.readLine()) != null; ) b.append(line).append(' ');
        }
        return b.toString().trim();
    }

    public static void main(String[] args) throws IOException {
        long want = Long.parseLong(read(args[2]).split("\\s+")[0]);
        String[] got = read(args[1]).split("\\s+");
        if (got.length != 1 || got[0].isEmpty()) { System.err.println("expected one number"); System.exit(2); }
        long n;
        try { n = Long.parseLong(got[0]); } catch (NumberFormatException e) { System.err.println("not a number"); System.exit(2); return; }
        if (n != want) { System.err.println("expected " + want + ", found " + n); System.exit(1); }
        System.err.println(n);
        System.exit(0);
    }
}
