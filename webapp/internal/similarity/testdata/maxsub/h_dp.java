import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        long[] dp = new long[n];
        long ans = 0;
        for (int i = 0; i < n; i++) {
            long x = sc.nextLong();
            dp[i] = i == 0 ? x : Math.max(x, dp[i - 1] + x);
            ans = i == 0 ? dp[i] : Math.max(ans, dp[i]);
        }
        System.out.println(ans);
    }
}
