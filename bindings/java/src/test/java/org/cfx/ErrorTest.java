package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ErrorTest {
    @Test
    void nonOkStatusBecomesCfxExceptionWithNameAndMessage() {
        CfxException e =
                assertThrows(CfxException.class, () -> Model.linear(new double[] {1.0, Double.NaN}, 0.0, 0.5));
        assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
        assertEquals(2, e.status());
        assertEquals("CFX_STATUS_INVALID_ARGUMENT", e.statusName());
        assertFalse(e.detail().isEmpty());
        assertTrue(e.getMessage().startsWith("CFX_STATUS_INVALID_ARGUMENT: "), e.getMessage());
        // The per-thread slot still holds the same message right after the failure.
        assertEquals(e.detail(), Cfx.lastErrorMessage());
        // A successful call clears it.
        assertEquals(Cfx.BUILT_FOR_ABI, Cfx.abiVersion());
        try (Model m = Model.linear(new double[] {1.0}, 0.0, 0.5)) {
            assertEquals("", Cfx.lastErrorMessage());
        }
    }

    @Test
    void rustPanicBecomesExceptionAndTheProcessLivesOn() throws Exception {
        assertTrue(Cfx.hasTestingPanic(), "run-tests.sh links the `testing` library");
        for (int i = 0; i < 3; i++) {
            CfxException e = assertThrows(CfxException.class, Cfx::testingPanic);
            assertEquals(Status.PANIC, e.statusCode());
            assertEquals("CFX_STATUS_PANIC", e.statusName());
            assertTrue(e.detail().contains("deliberate panic"), e.detail());
        }
        // On another thread too, and the library keeps working afterwards.
        AtomicReference<Throwable> seen = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                Cfx.testingPanic();
            } catch (Throwable x) {
                seen.set(x);
            }
        });
        t.start();
        t.join();
        assertInstanceOf(CfxException.class, seen.get());
        try (Model m = Model.linear(new double[] {2.0, -1.0}, 0.5, 0.5)) {
            assertEquals(2.0 * 1 - 1.0 * 3 + 0.5, m.predict(new double[] {1, 3}).score(), 0.0);
        }
    }

    @Test
    void typicalMisuseMapsToItsStatus() {
        try (Model m = Model.linear(new double[] {1.0, 2.0}, 0.0, 0.5)) {
            CfxException e = assertThrows(CfxException.class, () -> m.predict(new double[] {1.0}));
            assertEquals(Status.DIMENSION_MISMATCH, e.statusCode());
        }
        assertEquals(
                Status.FORMAT_ERROR,
                assertThrows(CfxException.class, () -> Schema.fromJson("{not json")).statusCode());
        assertEquals(
                Status.IO_ERROR,
                assertThrows(CfxException.class, () -> Dataset.loadGerman("/nonexistent/german.csv"))
                        .statusCode());
        assertEquals(
                Status.INVALID_ARGUMENT,
                assertThrows(CfxException.class, () -> Model.linear(new double[] {1.0}, 0.0, 1.5))
                        .statusCode());
        try (Dataset d = Dataset.loadGerman(TestData.germanPath());
                Schema s = d.schema()) {
            CfxException e = assertThrows(CfxException.class, () -> s.indexOf("no_such_feature"));
            assertEquals(Status.NOT_FOUND, e.statusCode());
            assertTrue(e.detail().contains("no_such_feature"), e.detail());
            assertEquals(Status.NOT_FOUND, assertThrows(CfxException.class, () -> d.row(1000)).statusCode());
            assertEquals(
                    Status.NOT_FOUND, assertThrows(CfxException.class, () -> s.featureName(99)).statusCode());
            assertThrows(IndexOutOfBoundsException.class, () -> d.row(-1));
        }
    }

    @Test
    void closedObjectsRefuseUseInsteadOfCrashing() {
        Model m = Model.linear(new double[] {1.0}, 0.0, 0.5);
        m.close();
        assertTrue(m.isClosed());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> m.predict(new double[] {1.0}));
        assertTrue(e.getMessage().contains("Model is closed"));
        assertThrows(IllegalStateException.class, m::toJson);
    }

    @Test
    void stringsWithNulAreRefusedBeforeReachingC() {
        assertThrows(IllegalArgumentException.class, () -> Schema.fromJson("{}\0{}"));
        assertThrows(NullPointerException.class, () -> Schema.fromJson(null));
    }
}
