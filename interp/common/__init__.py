"""What every layer of interp uses, importing nothing above it: the typed events a session yields, a model's reply
read for its code, the messages of a conversation, text cleaned for the model and the terminal, files read without
hanging and folders held from before code ran."""
