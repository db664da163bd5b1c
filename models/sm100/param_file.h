// param_file.h: forwards to models/common/param_file.h, where the parameter
// file reader shared by every architecture lives.
#pragma once

#include "models/common/param_file.h"
