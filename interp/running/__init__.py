"""A reply's code run in the kernel: the executor (`execution`), the imports code lacks (`unimported`), a missing
module offered (`packages`), the files it may overwrite kept aside and put back (`safekeep`), a changed copy of a
script saved (`copies`), and the user's own switches while a session runs (`state`)."""
