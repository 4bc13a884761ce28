# Both programs print ptxas's report (registers, spill stores and loads,
# stack frame) for every kernel while they compile: the chapter's evidence.
NVCCFLAGS.08-register-pressure.naive := -Xptxas -v
NVCCFLAGS.08-register-pressure.optimized := -Xptxas -v
