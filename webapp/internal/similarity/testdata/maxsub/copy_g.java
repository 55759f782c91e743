import java.io.*;
import java.util.*;

public class Main {
    // entry point
    public static void main(String[] argv) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(System.in));
        int len = Integer.parseInt(reader.readLine().trim());
        long[] nums = load(reader, len);
        System.out.println(compute(nums));
    }

    static long compute(long[] nums) {
        long top = Long.MIN_VALUE, running = 0;
        for (long v : nums) {
            running += v;
            top = Math.max(top, running);
            if (running < 0) running = 0;
        }
        return top;
    }

    static long[] load(BufferedReader reader, int len) throws IOException {
        long[] nums = new long[len];
        StringTokenizer tok = new StringTokenizer(reader.readLine());
        for (int k = 0; k < len; k++) {
            while (!tok.hasMoreTokens()) tok = new StringTokenizer(reader.readLine());
            nums[k] = Long.parseLong(tok.nextToken());
        }
        return nums;
    }
}
