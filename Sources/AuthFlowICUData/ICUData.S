// ICU's data for the release executable on Linux: the reduced package
// packaging/build-linux makes with packaging/icu-data/trim, under the
// symbol ICU looks for (icudtNN_dat). Linked as one of the executable's own
// objects, it stands in for the toolchain's 34 MB package, whose archive
// member is then never taken.
//
// Without AUTHFLOW_ICU_DATA_FILE and AUTHFLOW_ICU_DATA_SYMBOL (every build
// but the release's, and every platform but Linux) this object is empty and
// the toolchain's package is linked as usual.
#if defined(__linux__) && defined(__ELF__) && defined(AUTHFLOW_ICU_DATA_FILE) && defined(AUTHFLOW_ICU_DATA_SYMBOL)
    .section .rodata
    .globl AUTHFLOW_ICU_DATA_SYMBOL
    .type AUTHFLOW_ICU_DATA_SYMBOL, @object
    .balign 16
AUTHFLOW_ICU_DATA_SYMBOL:
    .incbin AUTHFLOW_ICU_DATA_FILE
    .size AUTHFLOW_ICU_DATA_SYMBOL, . - AUTHFLOW_ICU_DATA_SYMBOL
#endif
#if defined(__linux__) && defined(__ELF__)
    .section .note.GNU-stack, "", @progbits
#endif
