#include "_DominoShims.h"

__thread void *_Nullable _domino_thread_state = 0;
