package dev.warden.sinks.external;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Known-answer bytes from the protobuf encoding guide and hand encoding. */
class ProtoWriterTest {
    @Test
    void varintFieldUsesBase128LittleEndianGroups() {
        // The guide's example: field 1 = 150 is 08 96 01; 300 is ac 02.
        assertThat(hex(new ProtoWriter().varint(1, 150))).isEqualTo("089601");
        assertThat(hex(new ProtoWriter().varint(2, 300))).isEqualTo("10ac02");
    }

    @Test
    void negativeVarintTakesTenBytes() {
        assertThat(hex(new ProtoWriter().varint(3, -1))).isEqualTo("18ffffffffffffffffff01");
    }

    @Test
    void fixed64FieldIsEightLittleEndianBytesWithWireTypeOne() {
        // field 11, wire type 1: tag (11 << 3) | 1 = 0x59
        assertThat(hex(new ProtoWriter().fixed64(11, 0x0102030405060708L))).isEqualTo("590807060504030201");
    }

    @Test
    void doubleFieldIsTheIeeeBitsAsFixed64() {
        // 1.5 = 0x3FF8000000000000; field 4, wire type 1: tag 0x21
        assertThat(hex(new ProtoWriter().doubleValue(4, 1.5))).isEqualTo("21000000000000f83f");
    }

    @Test
    void nestedMessageIsLengthDelimited() {
        // KeyValue { key: "a", value: AnyValue { string_value: "b" } }
        ProtoWriter kv = new ProtoWriter().string(1, "a").message(2, v -> v.string(1, "b"));
        assertThat(hex(kv)).isEqualTo("0a016112030a0162");
    }

    @Test
    void stringFieldIsUtf8WithByteLength() {
        assertThat(hex(new ProtoWriter().string(3, "é"))).isEqualTo("1a02c3a9");
    }

    private static String hex(ProtoWriter writer) {
        return HexFormat.of().formatHex(writer.toByteArray());
    }
}
