package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NbtTest {
    @Test
    void roundTripsEveryType() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("b", (byte) -3);
        m.put("bool", true);
        m.put("s", (short) 300);
        m.put("i", 1 << 20);
        m.put("l", Long.MIN_VALUE);
        m.put("f", 1.5f);
        m.put("d", -2.25);
        m.put("bytes", new byte[] {1, 2});
        m.put("str", "h\u00e9llo \u0000 \uD83D\uDE00");
        m.put("list", List.of("a", "b"));
        m.put("empty", List.of());
        m.put("compound", Map.of("x", 1));
        m.put("ints", new int[] {1, -1});
        m.put("longs", new long[] {Long.MAX_VALUE});
        m.put("uuid", new UUID(0x0123456789ABCDEFL, 0xFEDCBA9876543210L));
        Map<String, Object> back = Nbt.readRoot(Nbt.writeRoot(m));
        assertEquals((byte) -3, back.get("b"));
        assertEquals((byte) 1, back.get("bool"));
        assertEquals((short) 300, back.get("s"));
        assertEquals(1 << 20, back.get("i"));
        assertEquals(Long.MIN_VALUE, back.get("l"));
        assertEquals(1.5f, back.get("f"));
        assertEquals(-2.25, back.get("d"));
        assertArrayEquals(new byte[] {1, 2}, (byte[]) back.get("bytes"));
        assertEquals(m.get("str"), back.get("str"));
        assertEquals(List.of("a", "b"), back.get("list"));
        assertEquals(List.of(), back.get("empty"));
        assertEquals(Map.of("x", 1), back.get("compound"));
        assertArrayEquals(new int[] {1, -1}, (int[]) back.get("ints"));
        assertArrayEquals(new long[] {Long.MAX_VALUE}, (long[]) back.get("longs"));
        assertArrayEquals(new int[] {0x01234567, 0x89ABCDEF, 0xFEDCBA98, 0x76543210}, (int[]) back.get("uuid"));
        assertEquals(List.copyOf(m.keySet()), List.copyOf(back.keySet()));
    }

    @Test
    void rejectsWhatNbtCannotHold() {
        assertThrows(IllegalArgumentException.class, () -> Nbt.writeRoot(Map.of("x", new Object())));
        assertThrows(IllegalArgumentException.class, () -> Nbt.writeRoot(Map.of("x", List.of(1, "a"))));
        assertThrows(IllegalArgumentException.class, () -> Nbt.writeRoot(Map.of("x", Map.of(1, 2))));
        Map<String, Object> deep = Map.of();
        for (int i = 0; i < 600; i++) {
            deep = Map.of("d", deep);
        }
        Map<String, Object> tooDeep = deep;
        assertThrows(IllegalArgumentException.class, () -> Nbt.writeRoot(tooDeep));
    }

    @Test
    void rejectsMalformedBytes() {
        byte[] good = Nbt.writeRoot(Map.of("k", List.of(1L, 2L)));
        for (int cut = 0; cut < good.length; cut++) {
            byte[] b = java.util.Arrays.copyOf(good, cut);
            TickreelException e = assertThrows(TickreelException.class, () -> Nbt.readRoot(b));
            assertEquals(TickreelException.Kind.METADATA, e.kind());
        }
        assertThrows(TickreelException.class, () -> Nbt.readRoot(new byte[] {8, 0, 0}));
        assertThrows(TickreelException.class, () -> Nbt.readRoot(new byte[] {10, 0, 0, 99, 0, 0}));
    }
}
