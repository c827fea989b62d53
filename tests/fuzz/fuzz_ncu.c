/* fuzz_ncu.c — fuzz target for the Nsight Compute CSV reader.
 *
 * The input is parsed in memory with ncu_csv_parse().  After a successful
 * parse every cell is read back through the accessors smsim validate and
 * compare use: ncu_row_by_id() of each row's ID, ncu_value() and
 * ncu_metric() of each column (which also evaluates the .sum/.avg precision
 * logic), and ncu_unit_scale() of each unit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_util.h"
#include "ncu/ncu_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ncu_table t;
    memset(&t, 0, sizeof t);
    char err[NCU_ERR_MAX];
    if (ncu_csv_parse((const char *)data, size, "fuzz.csv", &t, err)) {
        fz_check_error(err);
        ncu_table_free(&t);
        return 0;
    }
    int id = ncu_col(&t, "ID");
    for (int c = 0; c < t.ncols; c++) {
        char base[64];
        if (ncu_col(&t, t.names[c]) < 0)
            abort(); /* a column must be found by its own name */
        (void)ncu_unit_scale(t.units[c], base);
        if (!memchr(base, '\0', sizeof base))
            abort();
    }
    for (int r = 0; r < t.nrows; r++) {
        if (id >= 0 && ncu_cell(&t, r, id) && ncu_row_by_id(&t, ncu_cell(&t, r, id)) < 0)
            abort(); /* a row's own ID must find a row */
        for (int c = 0; c < t.ncols; c++) {
            double v;
            int rc = ncu_value(&t, r, c, &v, err);
            if (rc < 0)
                fz_check_error(err);
            rc = ncu_metric(&t, r, t.names[c], &v, err);
            if (rc < 0)
                fz_check_error(err);
        }
    }
    ncu_table_free(&t);
    return 0;
}
