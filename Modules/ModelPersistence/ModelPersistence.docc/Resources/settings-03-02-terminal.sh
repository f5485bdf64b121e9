# Run the app a few times: each run counts one launch.
swift run Notes
swift run Notes

# Break the file the way a careless program would (on Linux; the path is the one the app printed).
printf '<?xml version="1.0"?><plist><dict><key>theme</key><string>da' \
    > ~/.local/share/Notes/settings.plist

# The next run finds it, moves it aside as settings.plist.corrupt-<UTC time>, and starts afresh.
swift run Notes
ls -a ~/.local/share/Notes
