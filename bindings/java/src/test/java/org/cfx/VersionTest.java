package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class VersionTest {
    @Test
    void versionNumbersAgreeWithTheVersionString() {
        int[] v = Cfx.versionNumbers();
        assertEquals(v[0] + "." + v[1] + "." + v[2], Cfx.version());
        assertEquals("0.1.0", Cfx.version());
    }

    @Test
    void loadedLibraryHasTheAbiThisBindingWasBuiltFor() {
        assertEquals(Cfx.BUILT_FOR_ABI, Cfx.abiVersion());
        assertEquals(Cfx.BUILT_FOR_ABI, Native.headerAbiVersion());
    }

    @Test
    void abiMismatchIsRefusedWithAClearMessage() {
        UnsatisfiedLinkError e =
                assertThrows(UnsatisfiedLinkError.class, () -> Native.checkAbi(2, 1, 1));
        assertTrue(e.getMessage().contains("reports ABI 2"), e.getMessage());
        assertTrue(e.getMessage().contains("built for ABI 1"), e.getMessage());
        assertThrows(UnsatisfiedLinkError.class, () -> Native.checkAbi(1, 2, 1));
        Native.checkAbi(1, 1, 1); // a match passes
    }

    @Test
    void statusNamesComeFromTheLibrary() {
        for (Status s : Status.values()) {
            if (s != Status.UNKNOWN) {
                assertEquals("CFX_STATUS_" + s.name(), s.cName());
                assertEquals(s, Status.of(s.code()));
            }
        }
        assertEquals("CFX_STATUS_UNKNOWN", Cfx.statusName(12345));
        assertEquals("CFX_STATUS_UNKNOWN", Cfx.statusName(-1));
        assertEquals(Status.UNKNOWN, Status.of(12345));
    }
}
