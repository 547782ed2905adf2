package io.sluice.event;

/** Why a record was dead-lettered. The code travels in a header so consumers can triage. */
public enum Reason {
    MALFORMED,
    WRONG_TYPE,
    MISSING_FIELD,
    UNKNOWN_FIELD,
    UNKNOWN_SCHEMA,
    OVERSIZE,
    TIMESTAMP_OUT_OF_RANGE
}
