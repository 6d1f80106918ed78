package dev.warden.api.oauth.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UserCodesTest {
    @Test
    void mintedCodesAreEightConsonantsInTwoGroupsAndRarelyRepeat() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String code = UserCodes.mint();
            assertThat(code).matches("[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}");
            seen.add(code);
        }
        assertThat(seen).hasSizeGreaterThan(995);
    }

    @Test
    void typedCodesAreReadCaseInsensitivelyWithoutDashesOrSpaces() {
        assertThat(UserCodes.normalize("wdjb-mjht")).contains("WDJBMJHT");
        assertThat(UserCodes.normalize(" WDJB MJHT ")).contains("WDJBMJHT");
        assertThat(UserCodes.normalize("WDJBMJHT")).contains("WDJBMJHT");
        assertThat(UserCodes.display("WDJBMJHT")).isEqualTo("WDJB-MJHT");
    }

    @Test
    void anythingElseIsNoCode() {
        assertThat(UserCodes.normalize("WDJB-MJH")).isEmpty(); // too short
        assertThat(UserCodes.normalize("WDJB-MJHTX")).isEmpty(); // too long
        assertThat(UserCodes.normalize("WAJB-MJHT")).isEmpty(); // a vowel
        assertThat(UserCodes.normalize("WDJB-MJH1")).isEmpty(); // a digit
        assertThat(UserCodes.normalize("WDJB\u0000MJHT")).isEmpty();
        assertThat(UserCodes.normalize("B".repeat(33))).isEmpty();
        assertThat(UserCodes.normalize(null)).isEmpty();
    }
}
