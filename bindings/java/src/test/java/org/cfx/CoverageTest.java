package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Every function declared in include/cfx.h is called by the JNI shim (new entry points show up here). */
class CoverageTest {
    @Test
    void everyHeaderFunctionIsWrapped() throws Exception {
        String header = Files.readString(TestData.root().resolve("include/cfx.h"));
        // The shim: the generated entry points and those kept by hand.
        String shim = Files.readString(TestData.root().resolve("bindings/java/src/main/c/cfx_jni.c"))
                + Files.readString(TestData.root().resolve("bindings/java/src/main/c/cfx_jni_generated.c"));
        Matcher m = Pattern.compile("(?m)^[A-Za-z_][A-Za-z0-9_ *]*?\\b(cfx_[a-z0-9_]+)\\(").matcher(header);
        Set<String> declared = new TreeSet<>();
        while (m.find()) {
            declared.add(m.group(1));
        }
        assertTrue(declared.size() > 60, "parsed " + declared);
        Set<String> missing = new TreeSet<>();
        for (String f : declared) {
            if (!Pattern.compile("\\b" + f + "\\b").matcher(shim).find()) {
                missing.add(f);
            }
        }
        assertEquals(Set.of(), missing, "functions of cfx.h the Java binding does not wrap");
    }
}
