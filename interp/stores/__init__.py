"""What a session keeps: the journal, the list of conversations, the memory and its recall, notebooks in and out."""
