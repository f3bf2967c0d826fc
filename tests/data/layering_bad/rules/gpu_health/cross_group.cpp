// Deliberately against the layering: one rule group using another.
#include "rules/system/group.h"
