#include "engine/cost.h"
