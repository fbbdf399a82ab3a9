#include "cr/image_hooks.h"

namespace lz::rt {

namespace {
ImageHooks g_hooks;
}  // namespace

void set_image_hooks(const ImageHooks& hooks) { g_hooks = hooks; }
const ImageHooks& image_hooks() { return g_hooks; }

}  // namespace lz::rt
