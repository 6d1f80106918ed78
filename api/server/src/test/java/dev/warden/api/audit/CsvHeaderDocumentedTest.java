package dev.warden.api.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warden.testing.RepositoryFiles;
import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The CSV export's header row as the OpenAPI document describes it is the one the server writes: a generated
 * client has only the description to go by (the generated-clients interop check compares it with a real answer).
 */
class CsvHeaderDocumentedTest {
    @Test
    void theDocumentNamesEveryColumnTheExportWrites() throws IOException {
        String description = new ObjectMapper()
                .readTree(RepositoryFiles.file("api/rest/src/main/resources/openapi/openapi.json")
                        .toFile())
                .at("/paths/~1audit~1export/get/description")
                .asText();
        Matcher header = Pattern.compile("header row `([^`]+)`").matcher(description);

        assertThat(header.find()).as(description).isTrue();
        assertThat(header.group(1)).isEqualTo(String.join(",", AuditRoutes.CSV_HEADER));
    }
}
