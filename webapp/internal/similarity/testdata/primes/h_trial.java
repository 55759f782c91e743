import java.io.*;

public class Main {
    private static boolean prime(int x) {
        if (x < 2) {
            return false;
        }
        for (int d = 2; (long) d * d <= x; d++) {
            if (x % d == 0) {
                return false;
            }
        }
        return true;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        int total = 0;
        for (int x = 1; x <= n; x++) {
            if (prime(x)) {
                total++;
            }
        }
        System.out.println(total);
    }
}
