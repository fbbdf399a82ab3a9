// lazarus-criu-hook: CRIU's action script for cr/criu (criu_files_hook.h).
#include "criu_files_hook.h"

int main() { return lz::cr::criu::hook_main(); }
