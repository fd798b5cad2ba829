"""What the model is shown of the world before it answers: files a request names, previewed (`attach`, `previews`)
and read in pandas' terms where the session works in pandas (`frames`); what the kernel holds (`state_view`); and
`helping`, under which every such piece of help runs, so that the worst it can do is not help."""
