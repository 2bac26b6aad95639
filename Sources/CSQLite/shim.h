#include <sqlite3.h>
#include "checksums.h"
