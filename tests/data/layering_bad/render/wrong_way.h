// Deliberately against the layering: render must not include the agent.
#include "agent/agent.h"
