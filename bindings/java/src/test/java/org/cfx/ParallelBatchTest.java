package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import org.cfx.examples.ParallelBatch;
import org.junit.jupiter.api.Test;

class ParallelBatchTest {
    @Test
    void exampleAgreesWithOneThreadAndCountsEveryCopy() throws Exception {
        ParallelBatch.Result one = ParallelBatch.run(TestData.germanPath(), 1, 1);
        ParallelBatch.Result many = ParallelBatch.run(TestData.germanPath(), 5, 4);
        assertTrue(one.sameAsOneThread());
        assertTrue(many.sameAsOneThread());
        assertEquals(5000, many.applicants());
        assertEquals(5 * one.declined(), many.declined(), "each copy declines the same applicants");
        assertEquals(5 * one.explained(), many.explained());
        assertTrue(one.declined() > 0 && one.explained() > 0 && one.explained() <= one.declined());
        assertTrue(one.example().contains("duration_in_month: "), one.example());
        if (Coherent.available()) {
            assertEquals(40, many.optimalExplained());
            assertTrue(many.optimalExample().contains("optimal (cost "), many.optimalExample());
        } else {
            assertEquals(0, many.optimalExplained());
        }
    }
}
