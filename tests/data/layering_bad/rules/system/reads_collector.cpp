// Deliberately against the layering: a rule reading a collector's header.
#include "collect/host_facts.h"
