import java.io.*;
import java.util.*;

public class Main {
    static long[] read(BufferedReader in, int n) throws IOException {
        long[] a = new long[n];
        StringTokenizer st = new StringTokenizer(in.readLine());
        for (int i = 0; i < n; i++) {
            while (!st.hasMoreTokens()) st = new StringTokenizer(in.readLine());
            a[i] = Long.parseLong(st.nextToken());
        }
        return a;
    }

    static long solve(long[] a) {
        long best = Long.MIN_VALUE, sum = 0;
        for (long x : a) {
            sum += x;
            best = Math.max(best, sum);
            if (sum < 0) sum = 0;
        }
        return best;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(in.readLine().trim());
        long[] a = read(in, n);
        System.out.println(solve(a));
    }
}
