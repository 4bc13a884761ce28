/* The host a row records: the description ends in the usable core count,
 * holds no quote or control character, and survives a short buffer; the copy
 * rates are positive, and an impossible allocation is reported, not timed. */
#include "../../common/host.h"
#include "unit.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    char buf[512];
    host_describe(buf, sizeof buf);
    int cores = 0;
    const char *comma = strrchr(buf, ',');
    EXPECT(comma && sscanf(comma, ", %d cores", &cores) == 1 && cores >= 1);
    int clean = 1;
    for (const char *c = buf; *c; c++)
        clean &= *c >= ' ' && *c != '"';
    EXPECT(clean);
    char small[8];
    host_describe(small, sizeof small);
    EXPECT(strlen(small) == sizeof small - 1);

    EXPECT(host_copy_gbs((size_t)4 << 20, 0) > 0);
    EXPECT(host_copy_gbs((size_t)4 << 20, 1) > 0);
    EXPECT(host_copy_gbs(SIZE_MAX / 2, 0) < 0);
    return UNIT_REPORT();
}
