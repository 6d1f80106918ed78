package dev.warden.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.InvalidInputException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Form bodies (RFC 6749 appendix B) read with the same rules as JSON ones. */
class RequestReaderTest {
    static byte[] form(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void parametersArePercentAndPlusDecodedAndEmptyValuesCountAsAbsent() {
        assertThat(RequestReader.parseForm(
                        form("grant_type=authorization_code&redirect_uri=http%3A%2F%2F127.0.0.1%3A3000%2Fcb"
                                + "&scope=agents%3Aread+audit%3Aread&state=&code_verifier=a-b_c.d~e")))
                .containsEntry("grant_type", "authorization_code")
                .containsEntry("redirect_uri", "http://127.0.0.1:3000/cb")
                .containsEntry("scope", "agents:read audit:read")
                .containsEntry("code_verifier", "a-b_c.d~e")
                .doesNotContainKey("state");
        assertThat(RequestReader.parseForm(form(""))).isEmpty();
    }

    @Test
    void aRepeatedParameterBadEncodingInvalidUtf8AndRefusedTextAre400s() {
        assertThatThrownBy(() -> RequestReader.parseForm(form("code=a&code=b")))
                .isInstanceOfSatisfying(
                        InvalidInputException.class,
                        e -> assertThat(e.errors())
                                .extracting(FieldError::field)
                                .containsExactly("code"));
        assertThatThrownBy(() -> RequestReader.parseForm(form("code=%zz")))
                .isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("percent-encoding");
        assertThatThrownBy(() -> RequestReader.parseForm(new byte[] {'a', '=', (byte) 0xC3, (byte) 0x28}))
                .isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("UTF-8");
        assertThatThrownBy(() -> RequestReader.parseForm(form("client_id=a%00b&state=%ED%A0%80")))
                .isInstanceOf(InvalidInputException.class);
        assertThatThrownBy(() -> RequestReader.parseForm(form("client_id=x%00")))
                .isInstanceOfSatisfying(
                        InvalidInputException.class,
                        e -> assertThat(e.errors())
                                .extracting(FieldError::field)
                                .containsExactly("client_id"));
        StringBuilder many = new StringBuilder();
        for (int i = 0; i <= RequestReader.MAX_FORM_PARAMETERS; i++) {
            many.append("p").append(i).append("=1&");
        }
        assertThatThrownBy(() -> RequestReader.parseForm(form(many.toString())))
                .isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("at most 64");
    }
}
