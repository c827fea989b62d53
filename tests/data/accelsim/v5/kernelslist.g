MemcpyHtoD,0x00007f2b6c000000,4096
kernel-1.traceg
