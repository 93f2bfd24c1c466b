#include <cstdio>

int main() {
  std::puts("ralph");
  return 0;
}
