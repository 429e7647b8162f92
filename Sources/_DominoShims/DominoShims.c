#include "_DominoShims.h"

__thread void *_Nullable _domino_thread_state = 0;

_Alignas(128) unsigned char _domino_graph_words[DOMINO_GRAPH_WORDS_SIZE];
