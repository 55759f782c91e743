import java.util.BitSet;
import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        int n = new Scanner(System.in).nextInt();
        BitSet composite = new BitSet(n + 1);
        int count = 0;
        for (int i = 2; i <= n; i++) {
            if (composite.get(i)) continue;
            count++;
            for (long j = (long) i * i; j <= n; j += i) composite.set((int) j);
        }
        System.out.println(count);
    }
}
