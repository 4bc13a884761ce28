LDLIBS.19-shared-memory-tiling.library := -lcublas
