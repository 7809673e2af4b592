/* fuzz.h - the libFuzzer entry points the harnesses define.
 *
 * Built with clang's libFuzzer (scripts/fuzz, -Dfuzz=true) they are fuzzers;
 * built with any compiler otherwise, driver.c gives them a main() that runs
 * the seed corpus through them once (meson test --suite fuzz), so the
 * harnesses and their corpora stay working in every build. */
#pragma once

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);
