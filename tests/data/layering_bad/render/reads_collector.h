// Deliberately against the layering: a renderer including a collector.
#include "collect/rdma.h"
