package io.tickreel;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A small NBT codec between Java values and the metadata's NBT (big-endian, modified UTF-8
 * strings, as Java's {@link DataInputStream} and Minecraft use).
 *
 * <p>Java to NBT: {@link Byte}, {@link Boolean} (a byte 0/1), {@link Short}, {@link Integer},
 * {@link Long}, {@link Float}, {@link Double}, {@code byte[]}, {@link String}, {@link List} (all
 * elements of one type), {@link Map} with {@link String} keys (a compound), {@code int[]},
 * {@code long[]}, and {@link UUID} (an int array of 4, as Minecraft stores UUIDs). NBT to Java
 * gives the same types (lists and compounds unmodifiable, compounds in file order).
 */
final class Nbt {
    static final int END = 0;
    static final int BYTE = 1;
    static final int SHORT = 2;
    static final int INT = 3;
    static final int LONG = 4;
    static final int FLOAT = 5;
    static final int DOUBLE = 6;
    static final int BYTE_ARRAY = 7;
    static final int STRING = 8;
    static final int LIST = 9;
    static final int COMPOUND = 10;
    static final int INT_ARRAY = 11;
    static final int LONG_ARRAY = 12;

    /** Deepest nesting accepted (the native reader's limit). */
    static final int MAX_DEPTH = 512;

    private Nbt() {}

    /** Encodes a root compound with an empty name. */
    static byte[] writeRoot(Map<String, ?> compound) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(COMPOUND);
            out.writeUTF("");
            writePayload(out, compound, 0);
        } catch (UTFDataFormatException e) {
            throw new IllegalArgumentException("a metadata string is longer than 65535 bytes", e);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    /** Decodes a root compound. */
    static Map<String, Object> readRoot(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int tag = in.readUnsignedByte();
            if (tag != COMPOUND) {
                throw corrupt("root tag is " + tag + ", not a compound");
            }
            in.readUTF();
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) readPayload(in, COMPOUND, 0);
            return m;
        } catch (EOFException e) {
            throw corrupt("ends early");
        } catch (IOException e) {
            throw corrupt(e.toString());
        }
    }

    static int tagOf(Object v) {
        if (v instanceof Byte || v instanceof Boolean) return BYTE;
        if (v instanceof Short) return SHORT;
        if (v instanceof Integer) return INT;
        if (v instanceof Long) return LONG;
        if (v instanceof Float) return FLOAT;
        if (v instanceof Double) return DOUBLE;
        if (v instanceof byte[]) return BYTE_ARRAY;
        if (v instanceof String) return STRING;
        if (v instanceof List) return LIST;
        if (v instanceof Map) return COMPOUND;
        if (v instanceof int[] || v instanceof UUID) return INT_ARRAY;
        if (v instanceof long[]) return LONG_ARRAY;
        throw new IllegalArgumentException("cannot store "
                + (v == null ? "null" : v.getClass().getName()) + " as NBT metadata");
    }

    private static void writePayload(DataOutputStream out, Object v, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("metadata nested deeper than " + MAX_DEPTH);
        }
        switch (tagOf(v)) {
            case BYTE:
                out.writeByte(v instanceof Boolean ? ((Boolean) v ? 1 : 0) : (Byte) v);
                break;
            case SHORT:
                out.writeShort((Short) v);
                break;
            case INT:
                if (v instanceof UUID) {
                    throw new AssertionError();
                }
                out.writeInt((Integer) v);
                break;
            case LONG:
                out.writeLong((Long) v);
                break;
            case FLOAT:
                out.writeFloat((Float) v);
                break;
            case DOUBLE:
                out.writeDouble((Double) v);
                break;
            case BYTE_ARRAY: {
                byte[] a = (byte[]) v;
                out.writeInt(a.length);
                out.write(a);
                break;
            }
            case STRING:
                out.writeUTF((String) v);
                break;
            case LIST: {
                List<?> list = (List<?>) v;
                int tag = list.isEmpty() ? END : tagOf(list.get(0));
                for (Object item : list) {
                    if (tagOf(item) != tag) {
                        throw new IllegalArgumentException("an NBT list holds elements of one type only");
                    }
                }
                out.writeByte(tag);
                out.writeInt(list.size());
                for (Object item : list) {
                    writePayload(out, item, depth + 1);
                }
                break;
            }
            case COMPOUND:
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    if (!(e.getKey() instanceof String)) {
                        throw new IllegalArgumentException("NBT compound keys are strings, got " + e.getKey());
                    }
                    out.writeByte(tagOf(e.getValue()));
                    out.writeUTF((String) e.getKey());
                    writePayload(out, e.getValue(), depth + 1);
                }
                out.writeByte(END);
                break;
            case INT_ARRAY: {
                int[] a = v instanceof UUID ? uuidInts((UUID) v) : (int[]) v;
                out.writeInt(a.length);
                for (int x : a) {
                    out.writeInt(x);
                }
                break;
            }
            case LONG_ARRAY: {
                long[] a = (long[]) v;
                out.writeInt(a.length);
                for (long x : a) {
                    out.writeLong(x);
                }
                break;
            }
            default:
                throw new AssertionError();
        }
    }

    private static int[] uuidInts(UUID u) {
        long m = u.getMostSignificantBits();
        long l = u.getLeastSignificantBits();
        return new int[] {(int) (m >>> 32), (int) m, (int) (l >>> 32), (int) l};
    }

    private static Object readPayload(DataInputStream in, int tag, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw corrupt("nested deeper than " + MAX_DEPTH);
        }
        switch (tag) {
            case BYTE:
                return in.readByte();
            case SHORT:
                return in.readShort();
            case INT:
                return in.readInt();
            case LONG:
                return in.readLong();
            case FLOAT:
                return in.readFloat();
            case DOUBLE:
                return in.readDouble();
            case BYTE_ARRAY: {
                byte[] a = new byte[length(in, 1)];
                in.readFully(a);
                return a;
            }
            case STRING:
                return in.readUTF();
            case LIST: {
                int elem = in.readUnsignedByte();
                int n = in.readInt();
                if (n < 0 || n > in.available()) {
                    throw corrupt("list of " + n + " elements");
                }
                List<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(readPayload(in, elem, depth + 1));
                }
                return Collections.unmodifiableList(list);
            }
            case COMPOUND: {
                Map<String, Object> m = new LinkedHashMap<>();
                while (true) {
                    int t = in.readUnsignedByte();
                    if (t == END) {
                        return Collections.unmodifiableMap(m);
                    }
                    String name = in.readUTF();
                    m.put(name, readPayload(in, t, depth + 1));
                }
            }
            case INT_ARRAY: {
                int[] a = new int[length(in, 4)];
                for (int i = 0; i < a.length; i++) {
                    a[i] = in.readInt();
                }
                return a;
            }
            case LONG_ARRAY: {
                long[] a = new long[length(in, 8)];
                for (int i = 0; i < a.length; i++) {
                    a[i] = in.readLong();
                }
                return a;
            }
            default:
                throw corrupt("unknown tag " + tag);
        }
    }

    private static int length(DataInputStream in, int width) throws IOException {
        int n = in.readInt();
        if (n < 0 || (long) n * width > in.available()) {
            throw corrupt("array of " + n + " elements runs past the end");
        }
        return n;
    }

    private static TickreelException corrupt(String msg) {
        return new TickreelException(TickreelException.Kind.METADATA, "metadata is not valid NBT: " + msg);
    }
}
