// A shared object that is not a Lazarus component: no
// lazarus_component_descriptor entry point.
extern "C" __attribute__((visibility("default"))) int lz_test_not_a_component(void) { return 42; }
