LDLIBS.20-matrix-transpose.library := -lcublas
