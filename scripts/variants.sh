# Sourced by the scripts: the programs of a chapter folder, in table order.
chapter_programs() {
    for v in naive optimized library; do
        [ -f "$1/$v.cu" ] && echo "$1/$v"
    done
    return 0
}
