"""The extension of `pip install .` (pyproject.toml): hiremate._hiremate is built by the project's
CMake (target hiremate_python) and copied where setuptools packs it.

The CMake build folder is build-pip/ in the checkout (kept, so a second install only rebuilds what
changed), or $HIREMATE_BUILD_DIR (an existing build folder, `build`, is reused as it is configured).
$CMAKE_BUILD_PARALLEL_LEVEL sets the build's jobs (default 2)."""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE_DIR = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.path.abspath(os.environ.get("HIREMATE_BUILD_DIR") or os.path.join(SOURCE_DIR, "build-pip"))
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            # The Python the package is for: the interpreter behind this one (a venv's is a link to it).
            python = os.path.realpath(sys.executable)
            subprocess.run(["cmake", "-S", SOURCE_DIR, "-B", build_dir, f"-DHIREMATE_PYTHON={python}", "-DHIREMATE_BUILD_TESTS=OFF", "-DHIREMATE_BUILD_BENCH=OFF"],
                           check=True)
        env = dict(os.environ)
        env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.run(["cmake", "--build", build_dir, "--target", "hiremate_python"], check=True, env=env)
        built = glob.glob(os.path.join(build_dir, "python", "hiremate", "_hiremate*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one hiremate/_hiremate*.so in {build_dir}/python, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


os.makedirs(os.path.join(SOURCE_DIR, "build-pip"), exist_ok=True)  # egg_info's folder must exist
setup(ext_modules=[CMakeExtension("hiremate._hiremate")], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": os.path.join("build-pip", "setuptools")},
               "egg_info": {"egg_base": "build-pip"}})
