"""power_cut.py replays a sync journal into the files a power cut leaves."""
import os
import shutil
import tempfile
import unittest

import power_cut


class PowerCutTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="strata-power-cut-")
        self.journal = os.path.join(self.dir, "syncs")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def file(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def cut(self, *lines):
        with open(self.journal, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        return power_cut.apply(self.journal)

    def content(self, path):
        with open(path, "rb") as f:
            return f.read()

    def test_files_are_cut_to_their_last_sync_and_unsynced_creations_vanish(self):
        d = self.dir
        kept = self.file("kept.log", b"0123456789")        # synced at 4, entry synced
        fresh = self.file("fresh.log", b"abc")             # created, never in a synced dir
        old = self.file("old.log", b"oldbytesmore")        # existing: durable at open
        untouched = self.file("other", b"not named")       # not in the journal
        cut, removed = self.cut("create " + kept, "sync %s 4" % kept, "dirsync " + d,
                                "create " + fresh, "sync %s 3" % fresh,
                                "open %s 8" % old)
        self.assertEqual(self.content(kept), b"0123")
        self.assertFalse(os.path.exists(fresh))
        self.assertEqual(self.content(old), b"oldbytes")
        self.assertEqual(self.content(untouched), b"not named")
        self.assertEqual((cut, removed), (6 + 4, 1))
        # The journal is emptied: a second cut changes nothing.
        self.assertEqual(os.path.getsize(self.journal), 0)
        self.assertEqual(power_cut.apply(self.journal), (0, 0))

    def test_a_later_sync_counts_and_a_truncation_lowers_what_is_durable(self):
        path = self.file("seg.log", b"x" * 100)
        self.cut("open %s 10" % path, "sync %s 60" % path, "sync %s 40" % path,
                 "truncate %s 30" % path)
        self.assertEqual(os.path.getsize(path), 30)

    def test_a_rename_needs_a_directory_sync_and_removals_forget_files(self):
        d = self.dir
        renamed = self.file("b", b"data")
        later = self.file("c", b"data")
        gone_dir = os.path.join(d, "sub")
        os.mkdir(gone_dir)
        inside = self.file("sub/x", b"data")
        self.cut("open %s 4" % os.path.join(d, "a"), "rename %s %s" % (os.path.join(d, "a"), renamed),
                 "open %s 4" % os.path.join(d, "z"), "rename %s %s" % (os.path.join(d, "z"), later),
                 "dirsync " + d, "create " + inside, "remove " + gone_dir)
        self.assertTrue(os.path.exists(renamed))
        self.assertTrue(os.path.exists(later))
        # Removed from the journal's view: left as it is.
        self.assertTrue(os.path.exists(inside))

    def test_reopening_a_file_after_a_plain_kill_does_not_make_its_tail_durable(self):
        path = self.file("seg.log", b"x" * 100)
        self.cut("create " + path, "sync %s 40" % path, "dirsync " + self.dir,
                 "open %s 100" % path)
        self.assertEqual(os.path.getsize(path), 40)

    def test_a_rename_without_a_directory_sync_is_undone(self):
        renamed = self.file("b", b"datamore")
        self.cut("open %s 4" % os.path.join(self.dir, "a"),
                 "rename %s %s" % (os.path.join(self.dir, "a"), renamed))
        self.assertFalse(os.path.exists(renamed))
        self.assertEqual(self.content(os.path.join(self.dir, "a")), b"data")

    def test_a_new_file_renamed_without_a_directory_sync_is_lost(self):
        renamed = self.file("b", b"data")
        created = os.path.join(self.dir, "a.cleaned")
        self.cut("create " + created, "sync %s 4" % created, "rename %s %s" % (created, renamed))
        self.assertFalse(os.path.exists(renamed))
        self.assertFalse(os.path.exists(created))

    def test_an_unknown_event_is_an_error_naming_the_line(self):
        with self.assertRaisesRegex(ValueError, "line 2"):
            self.cut("dirsync " + self.dir, "shred everything")


if __name__ == "__main__":
    unittest.main()
