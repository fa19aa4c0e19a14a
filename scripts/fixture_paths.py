"""Every fixture path the whole-fixture scripts run prof on: each directory under ROOT and each
file in it (SOURCES.md left out), in a stable sorted order."""
import os


def fixture_paths(root="tests/fixtures"):
    paths = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        paths.append(dirpath)
        paths.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f != "SOURCES.md")
    return paths
