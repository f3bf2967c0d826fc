// Deliberately against the layering: the store must not include the rules.
#include "rules/engine/finding.h"
