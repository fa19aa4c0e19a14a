/*
 * Fake librocm_smi64.so for prof's end-to-end tests (tests/util_amd_rsmi.rs compiles it with
 * `cc -shared -fPIC`). It exports the ROCm SMI entry points prof binds, with the signatures of
 * ROCm/rocm_smi_lib include/rocm_smi/rocm_smi.h (commit fb22d777), and answers with the values
 * of a REAL recorded sample: tests/fixtures/amd/smi/telegraf_mi100_rocm571.json (rocm-smi 5.7.1
 * --json, 6 x MI100, idle), card0..card5:
 *   "Card series"                        Arcturus GL-XL [Instinct MI100]   -> rsmi_dev_name_get
 *   "GPU use (%)" 0, "GPU memory use (%)" 0                     -> busy / memory busy percent
 *   "VRAM Total Memory (B)" 34342961152, "VRAM Total Used Memory (B)" 6782976 (every card)
 *   "Average Graphics Package Power (W)" 39.0 37.0 35.0 39.0 39.0 40.0 -> rsmi_dev_power_ave_get
 *   "Max Graphics Package Power (W)" 290.0                      -> rsmi_dev_power_cap_get
 *   "Temperature (Sensor edge) (C)"     31 30 31 33 32 33
 *   "Temperature (Sensor junction) (C)" 34 33 34 35 34 35
 *   "sclk clock speed:" (300Mhz), "sclk clock level:" 0; the sclk levels under keys "1".."15":
 *     495 731 962 1029 1087 1147 1189 1235 1283 1319 1363 1404 1430 1472 1502 (Mhz). rocm-smi's
 *     JSON flattening wrote level 0 of every clock under key "0" (the PCIe line won), so level 0
 *     here is the current 300 MHz; only sclk has 16 levels, so keys 1..15 are read as sclk's.
 *   "mclk clock speed:" (1200Mhz), "mclk clock level:" 0: only the current mclk level is
 *     recorded, so the fake lists that one level.
 * Version: rsmi_version_get answers 0.0.0 with build "prof test fake": no version is recorded.
 *
 * Like rocm-smi 5.7.1's "Average Graphics Package Power", power comes from the deprecated
 * rsmi_dev_power_ave_get; rsmi_dev_power_get is exported only when built with -DFAKE_POWER_GET.
 * Layout of rsmi_frequencies_t: the header's current one (bool has_deep_sleep first, 33 levels);
 * -DFAKE_LEGACY_FREQUENCIES writes the older one (no bool, 32 levels).
 * -DFAKE_OMIT_BUSY leaves out rsmi_dev_busy_percent_get (a library missing a symbol).
 * Environment, read at call time:
 *   FAKE_RSMI_INIT_STATUS=N        rsmi_init returns N
 *   FAKE_RSMI_INIT_SLEEP_S=N       rsmi_init sleeps N seconds first (a hung driver)
 *   FAKE_RSMI_UNSUPPORTED=<name>   that entry point returns RSMI_STATUS_NOT_SUPPORTED (2)
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef uint32_t rsmi_status_t;
#define RSMI_STATUS_SUCCESS 0u
#define RSMI_STATUS_INVALID_ARGS 1u
#define RSMI_STATUS_NOT_SUPPORTED 2u
#define RSMI_STATUS_INIT_ERROR 8u
#define DEVICES 6u

#ifdef FAKE_LEGACY_FREQUENCIES
typedef struct {
    uint32_t num_supported;
    uint32_t current;
    uint64_t frequency[32];
} rsmi_frequencies_t;
#else
typedef struct {
    bool has_deep_sleep;
    uint32_t num_supported;
    uint32_t current;
    uint64_t frequency[33];
} rsmi_frequencies_t;
#endif

typedef struct {
    uint32_t major;
    uint32_t minor;
    uint32_t patch;
    const char *build;
} rsmi_version_t;

static const double AVERAGE_POWER_W[DEVICES] = {39.0, 37.0, 35.0, 39.0, 39.0, 40.0};
static const int64_t EDGE_C[DEVICES] = {31, 30, 31, 33, 32, 33};
static const int64_t JUNCTION_C[DEVICES] = {34, 33, 34, 35, 34, 35};
static const uint64_t SCLK_MHZ[] = {300, 495, 731, 962, 1029, 1087, 1147, 1189,
                                    1235, 1283, 1319, 1363, 1404, 1430, 1472, 1502};
static const uint64_t MCLK_MHZ[] = {1200};
static const char NAME[] = "Arcturus GL-XL [Instinct MI100]";

static int unsupported(const char *function) {
    const char *which = getenv("FAKE_RSMI_UNSUPPORTED");
    return which != NULL && strcmp(which, function) == 0;
}

#define GUARD(dv, out)                                                   \
    do {                                                                 \
        if ((out) == NULL || (dv) >= DEVICES) return RSMI_STATUS_INVALID_ARGS; \
        if (unsupported(__func__)) return RSMI_STATUS_NOT_SUPPORTED;     \
    } while (0)

rsmi_status_t rsmi_init(uint64_t flags) {
    (void)flags;
    const char *sleep_s = getenv("FAKE_RSMI_INIT_SLEEP_S");
    if (sleep_s != NULL) sleep((unsigned)strtoul(sleep_s, NULL, 10));
    const char *status = getenv("FAKE_RSMI_INIT_STATUS");
    return status != NULL ? (rsmi_status_t)strtoul(status, NULL, 10) : RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_shut_down(void) { return RSMI_STATUS_SUCCESS; }

rsmi_status_t rsmi_num_monitor_devices(uint32_t *num_devices) {
    if (num_devices == NULL) return RSMI_STATUS_INVALID_ARGS;
    *num_devices = DEVICES;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_name_get(uint32_t dv_ind, char *name, size_t len) {
    GUARD(dv_ind, name);
    if (len == 0) return RSMI_STATUS_INVALID_ARGS;
    strncpy(name, NAME, len - 1);
    name[len - 1] = '\0';
    return RSMI_STATUS_SUCCESS;
}

#ifndef FAKE_OMIT_BUSY
rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv_ind, uint32_t *busy_percent) {
    GUARD(dv_ind, busy_percent);
    *busy_percent = 0;
    return RSMI_STATUS_SUCCESS;
}
#endif

rsmi_status_t rsmi_dev_memory_busy_percent_get(uint32_t dv_ind, uint32_t *busy_percent) {
    GUARD(dv_ind, busy_percent);
    *busy_percent = 0;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv_ind, uint32_t mem_type, uint64_t *total) {
    GUARD(dv_ind, total);
    if (mem_type != 0) return RSMI_STATUS_NOT_SUPPORTED;
    *total = UINT64_C(34342961152);
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv_ind, uint32_t mem_type, uint64_t *used) {
    GUARD(dv_ind, used);
    if (mem_type != 0) return RSMI_STATUS_NOT_SUPPORTED;
    *used = UINT64_C(6782976);
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t *power) {
    GUARD(dv_ind, power);
    if (sensor_ind != 0) return RSMI_STATUS_NOT_SUPPORTED;
    *power = (uint64_t)(AVERAGE_POWER_W[dv_ind] * 1e6);
    return RSMI_STATUS_SUCCESS;
}

#ifdef FAKE_POWER_GET
rsmi_status_t rsmi_dev_power_get(uint32_t dv_ind, uint64_t *power, uint32_t *type) {
    GUARD(dv_ind, power);
    if (type == NULL) return RSMI_STATUS_INVALID_ARGS;
    *power = (uint64_t)(AVERAGE_POWER_W[dv_ind] * 1e6);
    *type = 0; /* RSMI_AVERAGE_POWER */
    return RSMI_STATUS_SUCCESS;
}
#endif

rsmi_status_t rsmi_dev_power_cap_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t *cap) {
    GUARD(dv_ind, cap);
    if (sensor_ind != 0) return RSMI_STATUS_NOT_SUPPORTED;
    *cap = UINT64_C(290000000);
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_temp_metric_get(uint32_t dv_ind, uint32_t sensor_type, uint32_t metric,
                                       int64_t *temperature) {
    GUARD(dv_ind, temperature);
    if (metric != 0) return RSMI_STATUS_NOT_SUPPORTED;
    if (sensor_type == 0) *temperature = EDGE_C[dv_ind] * 1000;
    else if (sensor_type == 1) *temperature = JUNCTION_C[dv_ind] * 1000;
    else return RSMI_STATUS_NOT_SUPPORTED;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_gpu_clk_freq_get(uint32_t dv_ind, uint32_t clk_type, rsmi_frequencies_t *f) {
    GUARD(dv_ind, f);
    const uint64_t *levels;
    uint32_t count;
    if (clk_type == 0) {
        levels = SCLK_MHZ;
        count = sizeof SCLK_MHZ / sizeof SCLK_MHZ[0];
    } else if (clk_type == 4) {
        levels = MCLK_MHZ;
        count = 1;
    } else {
        return RSMI_STATUS_NOT_SUPPORTED;
    }
    rsmi_frequencies_t answer;
    memset(&answer, 0, sizeof answer);
    answer.num_supported = count;
    answer.current = 0;
    for (uint32_t i = 0; i < count; i++) answer.frequency[i] = levels[i] * UINT64_C(1000000);
    *f = answer;
    return RSMI_STATUS_SUCCESS;
}

/* The descriptions are the header's comments on each rsmi_status_t member. */
rsmi_status_t rsmi_status_string(rsmi_status_t status, const char **status_string) {
    if (status_string == NULL) return RSMI_STATUS_INVALID_ARGS;
    switch (status) {
    case RSMI_STATUS_SUCCESS: *status_string = "RSMI_STATUS_SUCCESS: Operation was successful"; break;
    case RSMI_STATUS_NOT_SUPPORTED:
        *status_string = "RSMI_STATUS_NOT_SUPPORTED: The requested information or action is not available "
                         "for the given input, on the given system";
        break;
    case RSMI_STATUS_INIT_ERROR:
        *status_string = "RSMI_STATUS_INIT_ERROR: An error occurred when rsmi initializing internal data "
                         "structures";
        break;
    default: *status_string = "RSMI_STATUS_UNKNOWN_ERROR: An unknown error occurred"; break;
    }
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_version_get(rsmi_version_t *version) {
    if (version == NULL) return RSMI_STATUS_INVALID_ARGS;
    version->major = 0;
    version->minor = 0;
    version->patch = 0;
    version->build = "prof test fake";
    return RSMI_STATUS_SUCCESS;
}
