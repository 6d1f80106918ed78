package dev.warden.api.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RFC 4180 quoting and OWASP formula neutralisation. */
class CsvWriterTest {
    @Test
    void formulaCellsGetALeadingQuoteAndQuotingStillApplies() throws Exception {
        StringWriter out = new StringWriter();
        new CsvWriter(out).row(List.of("=1+2", "+x", "-y", "@z", "\tt", "\rr", "plain", "a,b", "=\"q\"", ""));
        assertThat(out.toString()).isEqualTo("'=1+2,'+x,'-y,'@z,'\tt,\"'\rr\",plain,\"a,b\",\"'=\"\"q\"\"\",\r\n");
    }
}
