package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class ParallelTest {
    @Test
    void eightThreadsShareOneModelHandleAndAgreeWithOneThread() throws Exception {
        try (Dataset d = Dataset.loadGerman(TestData.germanPath());
                Model m = Model.fitLinear(d, 1.0);
                Schema s = d.schema()) {
            double[] x = d.encodedRows();
            double[] serial = m.probabilities(x);
            int n = d.nRows();
            double[] parallel = new double[n];
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> fs = new ArrayList<>();
                int chunk = 37;
                for (int start = 0; start < n; start += chunk) {
                    int first = start;
                    int len = Math.min(chunk, n - start);
                    fs.add(pool.submit(() -> {
                        m.probabilitiesInto(x, first, len, parallel, first);
                        double[] out = java.util.Arrays.copyOfRange(parallel, first, first + len);
                        // mixed single calls and raw calls on the shared handles
                        double[] raw = d.row(first);
                        assertEquals(out[0], m.predictRaw(s, raw).probability(), 0.0);
                        // errors stay on their own thread
                        CfxException e = assertThrows(CfxException.class, () -> m.predict(new double[1]));
                        assertEquals(Status.DIMENSION_MISMATCH, e.statusCode());
                        return null;
                    }));
                }
                for (Future<?> f : fs) {
                    f.get();
                }
            } finally {
                pool.shutdown();
            }
            assertArrayEquals(serial, parallel, 0.0);
        }
    }
}
