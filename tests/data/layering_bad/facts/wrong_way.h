// Deliberately against the layering: facts may include only core and facts.
#include "parse/proc_stat.h"
